// A static file server for benchmarks/run_remote_import.sh: serves the files
// of DIR over plain HTTP on loopback with Range requests (cpp-httplib, C++;
// each range read with pread, never the whole file), so the remote reader's
// own throughput can be told apart from the loopback S3 server's (OpenStack
// Swift, Python). Prints "port=N", serves until killed.
//
//   range_file_server DIR
#include <fcntl.h>
#include <httplib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: range_file_server DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(8); };
  server.Get(R"(/([A-Za-z0-9._-]+))", [&](const httplib::Request& req, httplib::Response& res) {
    int fd = ::open((dir + "/" + req.matches[1].str()).c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      if (fd >= 0) ::close(fd);
      res.status = 404;
      return;
    }
    auto file = std::shared_ptr<int>(new int(fd), [](int* p) {
      ::close(*p);
      delete p;
    });
    res.set_content_provider(static_cast<size_t>(st.st_size), "application/octet-stream",
                             [file](size_t offset, size_t length, httplib::DataSink& sink) {
                               std::vector<char> buf(std::min<size_t>(length, size_t{1} << 20));
                               while (length > 0) {
                                 ssize_t n =
                                     ::pread(*file, buf.data(), std::min(length, buf.size()),
                                             static_cast<off_t>(offset));
                                 if (n <= 0 || !sink.write(buf.data(), static_cast<size_t>(n)))
                                   return false;
                                 offset += static_cast<size_t>(n);
                                 length -= static_cast<size_t>(n);
                               }
                               return true;
                             });
  });
  int port = server.bind_to_any_port("127.0.0.1");
  std::printf("port=%d\n", port);
  std::fflush(stdout);
  server.listen_after_bind();
  return 0;
}
