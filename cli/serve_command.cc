#include "cli/serve_command.h"

#include <malloc.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/serve_clock_offsets.h"
#include "cli/serve_diff_source.h"
#include "cli/serve_findings_source.h"
#include "cli/serve_paths_source.h"
#include "cli/serve_runs.h"
#include "cli/serve_share.h"
#include "core/graph/text_escape.h"
#include "core/serve/serve_access.h"
#include "core/serve/serve_db_runs.h"
#include "core/serve/serve_index_cache.h"
#include "core/serve/serve_run.h"
#include "core/serve/serve_run_loader.h"
#include "core/serve/serve_server.h"
#include "core/serve/share_keys.h"

extern char** environ;

namespace th::cli {

namespace {

// Up to this many runs of files are imported at start, in order; more (and
// the runs of a database) are imported when first opened.
constexpr size_t kEagerRuns = 8;

struct ServeOptions {
  std::vector<std::string> inputs;
  std::string db;
  int port = 8765;
  std::string bind = "127.0.0.1";
  std::string token;
  bool open = false;
  std::string cache_dir;
  bool no_cache = false;
  bool no_findings = false;
  std::string tls_cert, tls_key;
  ShareCommand share;  // --share / --revoke, --key-file, --expires
};

// Opens `url` with xdg-open, without a shell; failure is only a note.
void OpenBrowser(const std::string& url) {
  pid_t pid = 0;
  std::string program = "xdg-open";
  char* argv[] = {program.data(), const_cast<char*>(url.c_str()), nullptr};
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, argv, environ) != 0) {
    std::cerr << "tracehound: note: could not run xdg-open; open " << url << "\n";
    return;
  }
  std::thread([pid] { waitpid(pid, nullptr, 0); }).detach();
}

std::string Fixed(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", seconds);
  return text;
}

// Reports a loaded run on stderr; a run that failed stops the server when
// `fatal` (runs imported at start), else only its requests answer the error.
void ReportLoaded(size_t run, const serve::ServeRun& r, const Status& loaded,
                  const std::string& note, const serve::ServeLoadTimes& times, bool fatal,
                  serve::ServeServer* server, int* exit_code) {
  for (size_t at = 0, end; (end = note.find('\n', at)) != std::string::npos; at = end + 1)
    std::cerr << "tracehound: " << PrintableBytes(note.substr(at, end - at)) << "\n";
  if (!loaded.ok()) {
    std::cerr << "tracehound: error: " << PrintableBytes(loaded.message()) << "\n";
    if (fatal) {
      *exit_code = 2;
      server->Stop();
    }
    return;
  }
  std::cerr << "tracehound: run " << run << " ready: " << PrintableBytes(r.name()) << " ("
            << r.graph().events.size() << " events, index "
            << (r.index_from_cache() ? "from the cache" : "built") << "; import "
            << Fixed(times.import_s) << " s, content hash " << Fixed(times.hash_s) << " s, index "
            << Fixed(times.index_s) << " s, cache write " << Fixed(times.cache_write_s)
            << " s; overview "
            << (times.overview_early ? "from the cache, answered during the import" : "built")
            << " " << Fixed(times.overview_s) << " s)\n";
  server->RunReady(run);
}

// The runs of the inputs or of the database, with the server's run browser.
StatusOr<std::vector<ServeRunSpec>> ServeRuns(const ServeOptions& opt,
                                              std::unique_ptr<serve::DatabaseRuns>* db) {
  if (opt.db.empty()) return DiscoverServeRuns(opt.inputs);
  auto opened = serve::DatabaseRuns::Open(opt.db);
  if (!opened.ok()) return opened.status();
  *db = std::move(*opened);
  auto summaries = (*db)->Summaries();
  if (!summaries.ok()) return summaries.status();
  return DatabaseServeRuns(std::move(*summaries));
}

// The share key of a server with a token; without one (a note says why)
// only the admin token opens it.
std::unique_ptr<serve::ShareAuthority> OpenShareKey(const ServeOptions& opt) {
  const std::string key_file = ShareKeyFile(opt.share.key_file, opt.cache_dir);
  if (key_file.empty()) {
    std::cerr << "tracehound: note: share links are off: no key file (give --key-file)\n";
    return nullptr;
  }
  auto opened = serve::ShareAuthority::Open(key_file);
  if (!opened.ok()) {
    std::cerr << "tracehound: warning: share links are off: "
              << PrintableBytes(opened.status().message()) << "\n";
    return nullptr;
  }
  std::cerr << "tracehound: share links are signed with " << key_file << "\n";
  return std::move(*opened);
}

void RunServe(const ServeOptions& opt, int* exit_code) {
  if (!opt.share.runs.empty() || !opt.share.revoke.empty()) {
    ShareCommand share = opt.share;
    share.bind = opt.bind;
    share.port = opt.port;
    share.tls = !opt.tls_cert.empty();
    share.cache_dir = opt.cache_dir;
    *exit_code = RunShareCommand(share);
    return;
  }
  // Viewport answers reach 10 MB: keep such blocks in the heap instead of
  // mapping (and faulting in) fresh pages for every answer.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  std::unique_ptr<serve::DatabaseRuns> db;
  auto specs = ServeRuns(opt, &db);
  if (!specs.ok()) {
    std::cerr << "tracehound: error: " << PrintableBytes(specs.status().message()) << "\n";
    *exit_code = 2;
    return;
  }
  std::vector<std::unique_ptr<serve::ServeRun>> runs;
  serve::ServeServerOptions server_options;
  for (ServeRunSpec& spec : *specs) {
    runs.push_back(std::make_unique<serve::ServeRun>(spec.input, spec.name));
    server_options.browser.summaries.push_back(std::move(spec.summary));
  }
  const bool eager = !db && runs.size() <= kEagerRuns;
  std::unique_ptr<serve::RunLoader> loader;
  if (!eager) server_options.browser.open_run = [&loader](size_t run) { loader->Open(run); };
  if (db)
    server_options.browser.stored_findings = [&db](const std::string& id) {
      return db->Findings(id);
    };
  server_options.bind = opt.bind;
  server_options.port = opt.port;
  server_options.access.token = opt.token;
  if (!opt.no_findings) server_options.findings = DefaultPipelineFindings();
  server_options.browser.diff_plugins = DefaultDiffPlugins();
  server_options.browser.paths = DefaultPathsPlugins();
  if (opt.token.empty() && !serve::IsLoopbackAddress(opt.bind))
    server_options.access.token = serve::RandomToken();
  server_options.tls = {opt.tls_cert, opt.tls_key};
  std::unique_ptr<serve::ShareAuthority> share;
  if (!server_options.access.token.empty()) share = OpenShareKey(opt);
  server_options.access.share = share.get();
  serve::ServeServer server(&runs, server_options);
  Status bound = server.Bind();
  if (!bound.ok()) {
    std::cerr << "tracehound: error: " << PrintableBytes(bound.message()) << "\n";
    *exit_code = 2;
    return;
  }
  std::cout << "serving " << server.Url() << std::endl;
  serve::ServeLoadOptions load;
  load.cache_dir = opt.no_cache            ? ""
                   : opt.cache_dir.empty() ? serve::DefaultIndexCacheDir()
                                           : opt.cache_dir;
  load.clock_offsets = StragglersClockOffsets();
  *exit_code = 0;
  loader = std::make_unique<serve::RunLoader>(
      &runs, load,
      [&](size_t run, const Status& loaded, const std::string& note,
          const serve::ServeLoadTimes& times) {
        ReportLoaded(run, *runs[run], loaded, note, times, eager, &server, exit_code);
      });
  if (eager) loader->OpenAll();
  if (opt.open) OpenBrowser(server.Url());
  server.Listen();
  loader->Stop();
}

}  // namespace

void AddServeCommand(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Serve a trace viewer over HTTP: any trace, any zoom, from the event graph");
  cmd->add_option("inputs", opt->inputs,
                  "trace files, directories or archives; runs are grouped as scan groups them "
                  "(a folder of ranks, an archive, an XProf session: one run and time axis)");
  cmd->add_option("--db", opt->db,
                  "list the runs of a fleet database of `scan` (sqlite:PATH, PATH.db, "
                  "postgresql://...): their findings come from it, their traces from their "
                  "stored locations when opened");
  cmd->add_option("--port", opt->port, "TCP port (0 = any free port)")->check(CLI::Range(0, 65535));
  cmd->add_option("--bind", opt->bind,
                  "address to listen on; any non-loopback address needs a token");
  cmd->add_option("--token", opt->token,
                  "access token every request must carry (generated when binding off loopback)");
  cmd->add_flag("--open", opt->open, "open the viewer in a browser (xdg-open)");
  cmd->add_option("--cache-dir", opt->cache_dir,
                  "folder of cached indexes (default $XDG_CACHE_HOME/tracehound or "
                  "~/.cache/tracehound)");
  cmd->add_flag("--no-cache", opt->no_cache, "neither read nor write cached indexes");
  cmd->add_flag("--no-findings", opt->no_findings,
                "do not run the default pipeline for the findings lane (it then says so)");
  cmd->add_option("--tls-cert", opt->tls_cert, "serve HTTPS with this PEM certificate (chain)");
  cmd->add_option("--tls-key", opt->tls_key, "the PEM private key of --tls-cert");
  cmd->add_option("--key-file", opt->share.key_file,
                  "the key that signs share links (created, mode 0600, when absent; default "
                  "serve-share.key in the cache folder, --cache-dir's if given)");
  cmd->add_option("--share", opt->share.runs,
                  "print a read-only link to these runs (traces or content keys) for the server "
                  "of --bind/--port/--key-file, and exit");
  cmd->add_option("--expires", opt->share.expires, "how long a --share link works (default 7d)");
  cmd->add_option("--revoke", opt->share.revoke,
                  "refuse a share link from now on (its id, token or the link), and exit");
  cmd->callback([opt, exit_code] {
    const bool sharing = !opt->share.runs.empty() || !opt->share.revoke.empty();
    if (!sharing && opt->inputs.empty() == opt->db.empty()) {
      std::cerr << "tracehound: error: serve: give trace INPUTs or --db URL (one of them)\n";
      *exit_code = 2;
      return;
    }
    RunServe(*opt, exit_code);
  });
}

}  // namespace th::cli
