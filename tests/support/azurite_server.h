// A real Azure Blob server for tests: Azurite (Microsoft's storage emulator,
// from npm; scripts/dev.sh installs it under <build>/npm), started on a free
// loopback port in a temporary directory and stopped when the object dies.
// It checks Shared Key signatures of the well-known emulator account
// devstoreaccount1.
#pragma once

#include <string>

namespace th::testing {

class AzuriteServer {
 public:
  static constexpr const char* kAccount = "devstoreaccount1";
  static constexpr const char* kKey =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

  // The server of this test process, started on first use; nullptr (and
  // `why` set) when Azurite is not installed or does not start.
  static AzuriteServer* Shared(std::string* why);
  ~AzuriteServer();

  // http://127.0.0.1:PORT/devstoreaccount1
  std::string endpoint() const;
  // "AZURE_STORAGE_ENDPOINT=... AZURE_STORAGE_KEY=..." for a command line.
  std::string Env(const std::string& key = kKey) const;
  // Creates `container` (if missing) and stores `path` as its blob `blob`,
  // with Shared Key requests sent by curl.
  bool Put(const std::string& container, const std::string& blob, const std::string& path);

 private:
  AzuriteServer() = default;
  int port_ = 0;
  int pid_ = -1;
};

}  // namespace th::testing
