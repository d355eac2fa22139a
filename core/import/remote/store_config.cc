#include "core/import/remote/store_config.h"

#include <cstdlib>
#include <fstream>
#include <map>

namespace th::remote {

namespace {

using IniSection = std::map<std::string, std::string>;

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Sections of an AWS-style INI file; false when it cannot be read.
bool ReadIni(const std::string& path, std::map<std::string, IniSection>* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line, section;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = Trim(line.substr(1, line.size() - 2));
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    (*out)[section][Trim(line.substr(0, eq))] = Trim(line.substr(eq + 1));
  }
  return true;
}

std::string HomeFile(const Getenv& env, const char* var, const char* rel) {
  std::string path = env(var);
  if (!path.empty()) return path;
  std::string home = env("HOME");
  return home.empty() ? "" : home + "/" + rel;
}

std::string Region(const Getenv& env, const std::string& profile) {
  for (const char* var : {"AWS_REGION", "AWS_DEFAULT_REGION"})
    if (!env(var).empty()) return env(var);
  std::map<std::string, IniSection> config;
  if (ReadIni(HomeFile(env, "AWS_CONFIG_FILE", ".aws/config"), &config)) {
    for (const std::string& name : {"profile " + profile, profile}) {
      auto it = config.find(name);
      if (it != config.end() && it->second.count("region")) return it->second["region"];
    }
  }
  return "us-east-1";
}

}  // namespace

std::string ProcessEnv(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

StatusOr<StoreConfig> S3Config(const Getenv& env) {
  StoreConfig c;
  std::string profile = env("AWS_PROFILE").empty() ? "default" : env("AWS_PROFILE");
  c.region = Region(env, profile);
  c.endpoint =
      env("AWS_ENDPOINT_URL_S3").empty() ? env("AWS_ENDPOINT_URL") : env("AWS_ENDPOINT_URL_S3");
  while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
  if (!env("AWS_ACCESS_KEY_ID").empty()) {
    c.access_key = env("AWS_ACCESS_KEY_ID");
    c.secret_key = env("AWS_SECRET_ACCESS_KEY");
    c.session_token = env("AWS_SESSION_TOKEN");
    c.source = "the environment (AWS_ACCESS_KEY_ID)";
    if (c.secret_key.empty())
      return InvalidInput("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
    return c;
  }
  std::string file = HomeFile(env, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
  std::map<std::string, IniSection> ini;
  bool read = !file.empty() && ReadIni(file, &ini);
  auto it = ini.find(profile);
  if (it == ini.end()) {
    if (!env("AWS_PROFILE").empty())
      return NotFound("AWS profile " + profile + " not found in " +
                      (file.empty() ? "~/.aws/credentials" : file) +
                      (read ? "" : " (cannot read the file)"));
    c.source = "none (unsigned requests)";
    return c;
  }
  c.access_key = it->second["aws_access_key_id"];
  c.secret_key = it->second["aws_secret_access_key"];
  c.session_token = it->second["aws_session_token"];
  c.source = "profile " + profile + " of " + file;
  if (c.access_key.empty() || c.secret_key.empty())
    return InvalidInput("AWS " + c.source + " lacks aws_access_key_id or aws_secret_access_key");
  return c;
}

StoreConfig GcsConfig(const Getenv& env) {
  StoreConfig c;
  c.endpoint = env("STORAGE_EMULATOR_HOST");
  if (c.endpoint.empty()) c.endpoint = "https://storage.googleapis.com";
  while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
  c.region = "auto";
  if (!env("GOOGLE_HMAC_ACCESS_ID").empty()) {
    c.access_key = env("GOOGLE_HMAC_ACCESS_ID");
    c.secret_key = env("GOOGLE_HMAC_SECRET");
    c.source = "the environment (GOOGLE_HMAC_ACCESS_ID)";
  } else if (!env("GOOGLE_OAUTH_ACCESS_TOKEN").empty()) {
    c.bearer_token = env("GOOGLE_OAUTH_ACCESS_TOKEN");
    c.source = "the environment (GOOGLE_OAUTH_ACCESS_TOKEN)";
  } else {
    c.source = "none (unsigned requests)";
  }
  return c;
}

StoreConfig AzureConfig(const Getenv& env) {
  StoreConfig c;
  c.endpoint = env("AZURE_STORAGE_ENDPOINT");
  while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
  c.sas_token = env("AZURE_STORAGE_SAS_TOKEN");
  if (!c.sas_token.empty() && c.sas_token.front() == '?') c.sas_token.erase(0, 1);
  c.shared_key = env("AZURE_STORAGE_KEY");
  c.source = !c.sas_token.empty()    ? "the environment (AZURE_STORAGE_SAS_TOKEN)"
             : !c.shared_key.empty() ? "the environment (AZURE_STORAGE_KEY)"
                                     : "none (unsigned requests)";
  return c;
}

}  // namespace th::remote
