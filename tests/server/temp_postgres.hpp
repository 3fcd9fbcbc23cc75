// A throwaway PostgreSQL 15 server for tests, one per test process: initdb in a fresh folder
// under /tmp (mode 0700), postgres listening only on a Unix socket in that folder (no TCP at all,
// so any port number will do: it only names the socket file), trust authentication as the user
// "postgres", and a new empty database for each test that asks (fresh_database()).
//
// initdb, pg_ctl and postgres refuse to run as root: when the tests run as root, they run as the
// "postgres" system user (Debian's postgresql-15 package creates it), which owns the folder; root
// can still connect through the socket. Children are started with fork and execve (argv arrays,
// a clean environment, no shell of ours), and every wait is bounded.
//
// Cleaning up: the destructor stops the server (pg_ctl stop -m immediate) and removes the folder.
// Should the test process die without it (a crash, abort(), ASan's report, kill -9, ctest's
// timeout), a watchdog does it: a small detached sh process, started before initdb, that blocks
// reading a socket whose other end only the test process holds. When that end closes without
// the destructor's "done", it sends the postmaster SIGQUIT (an immediate shutdown), waits for it
// and removes the folder. What can still be left: a server whose pg_ctl start was under way when
// the test process died, and anything left by a kill -9 of the watchdog itself
// (ls -d /tmp/plateau-pg-*; they go with a reboot).
#pragma once

#include <fcntl.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <expected>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace plateau::test {

class TempPostgres {
 public:
  static constexpr const char* kBinDir = "/usr/lib/postgresql/15/bin";
  // Only names the socket file (.s.PGSQL.5432) in the private folder: there is no TCP listener.
  static constexpr int kPort = 5432;

  // Starts it: initdb, then pg_ctl start, which waits until it accepts connections. Fails (with
  // the logs' last lines) if that has not happened after about 30 s.
  static std::expected<std::unique_ptr<TempPostgres>, std::string> start() {
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + seconds(30);
    const std::string bin = kBinDir;
    for (const char* tool : {"initdb", "pg_ctl", "postgres"}) {
      if (::access((bin + "/" + tool).c_str(), X_OK) != 0)
        return std::unexpected(bin + "/" + tool +
                               " is missing: install Debian's postgresql-15 package");
    }
    std::unique_ptr<TempPostgres> pg(new TempPostgres());
    if (::geteuid() == 0) {
      struct passwd pw{};
      struct passwd* found = nullptr;
      char buf[4096];
      if (::getpwnam_r("postgres", &pw, buf, sizeof buf, &found) != 0 || !found)
        return std::unexpected(std::string(
            "running as root, and there is no \"postgres\" user to run initdb and postgres as"));
      pg->as_other_ = true;
      pg->uid_ = pw.pw_uid;
      pg->gid_ = pw.pw_gid;
    }
    char tmpl[] = "/tmp/plateau-pg-XXXXXX";
    if (!::mkdtemp(tmpl)) return std::unexpected("mkdtemp: " + std::string(std::strerror(errno)));
    pg->dir_ = tmpl;
    if (pg->as_other_ && ::chown(tmpl, pg->uid_, pg->gid_) != 0)
      return std::unexpected("chown " + pg->dir_ + ": " + std::strerror(errno));
    if (auto armed = pg->arm_watchdog(); !armed) return std::unexpected(armed.error());

    const std::string data = pg->dir_ + "/data";
    const std::string initdb_log = pg->dir_ + "/initdb.log";
    auto rc = pg->run({bin + "/initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync",
                       "-E", "UTF8", "--locale=C"},
                      initdb_log, deadline);
    if (!rc || *rc != 0)
      return std::unexpected("initdb failed (" + (rc ? "exit " + std::to_string(*rc) : rc.error()) +
                             "):\n" + tail(initdb_log));

    // pg_ctl hands -o to /bin/sh; the folder's name is ours (/tmp/plateau-pg- and mkdtemp's
    // letters and digits), quoted anyway.
    const std::string options = "-c listen_addresses='' -k '" + pg->dir_ + "' -p " +
                                std::to_string(kPort) +
                                " -c fsync=on -c max_connections=200 -c shared_buffers=32MB";
    const auto left = duration_cast<seconds>(deadline - steady_clock::now()).count();
    const std::string ctl_log = pg->dir_ + "/pg_ctl.log";
    rc = pg->run(
        {bin + "/pg_ctl", "start", "-D", data, "-w", "-t",
         std::to_string(std::max<long long>(left, 1)), "-l", pg->dir_ + "/log", "-o", options},
        ctl_log, deadline + seconds(5));
    if (!rc || *rc != 0)
      return std::unexpected("pg_ctl start failed (" +
                             (rc ? "exit " + std::to_string(*rc) : rc.error()) + "):\n" +
                             tail(ctl_log) + "\nserver log:\n" + tail(pg->dir_ + "/log"));
    if (PQping(pg->admin_uri().c_str()) != PQPING_OK)
      return std::unexpected("the server started but does not answer at " + pg->admin_uri() +
                             ":\n" + tail(pg->dir_ + "/log"));
    return pg;
  }

  ~TempPostgres() {
    if (dir_.empty()) return;
    using namespace std::chrono;
    const std::string data = dir_ + "/data";
    const std::string pid_file = data + "/postmaster.pid";
    std::error_code ec;
    if (std::filesystem::exists(pid_file, ec)) {
      const pid_t postmaster = read_pid(pid_file);
      (void)run({std::string(kBinDir) + "/pg_ctl", "stop", "-D", data, "-m", "immediate", "-w",
                 "-t", "10"},
                dir_ + "/pg_ctl.log", steady_clock::now() + seconds(12));
      // pg_ctl removes nothing itself: the postmaster deletes its pid file as it exits, after
      // its children. Still there: stop did not work, and SIGKILL is what is left.
      if (postmaster > 0 && std::filesystem::exists(pid_file, ec)) {
        ::kill(postmaster, SIGKILL);
        const auto until = steady_clock::now() + seconds(3);
        while (::kill(postmaster, 0) == 0 && steady_clock::now() < until)
          std::this_thread::sleep_for(milliseconds(10));
      }
    }
    std::filesystem::remove_all(dir_, ec);
    // The folder gone, the watchdog has nothing left to do; if it is not, the watchdog tries.
    if (watch_fd_ >= 0) {
      if (!std::filesystem::exists(dir_, ec)) (void)::send(watch_fd_, "done\n", 5, MSG_NOSIGNAL);
      ::close(watch_fd_);
    }
  }

  TempPostgres(const TempPostgres&) = delete;
  TempPostgres& operator=(const TempPostgres&) = delete;

  // A libpq URI for a new empty database (CREATE DATABASE under a fresh name on each call).
  // Throws std::runtime_error if it cannot be created. Safe to call from several threads.
  std::string fresh_database() {
    static std::atomic<unsigned> counter{0};
    const std::string name =
        "plateau_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
    PGconn* c = PQconnectdb(admin_uri().c_str());
    std::string err;
    if (PQstatus(c) != CONNECTION_OK) {
      err = PQerrorMessage(c);
    } else {
      PGresult* r = PQexec(c, ("CREATE DATABASE " + name).c_str());
      if (PQresultStatus(r) != PGRES_COMMAND_OK) err = PQerrorMessage(c);
      PQclear(r);
    }
    PQfinish(c);
    if (!err.empty()) throw std::runtime_error("CREATE DATABASE " + name + ": " + err);
    return uri(name);
  }

  // The URI of the maintenance database "postgres".
  std::string admin_uri() const { return uri("postgres"); }
  // The URI of database `db` on this server.
  std::string uri(const std::string& db) const {
    return "postgresql:///" + db + "?host=" + dir_ + "&port=" + std::to_string(kPort) +
           "&user=postgres";
  }
  // The private folder: data/, the socket, and the logs (log, initdb.log, pg_ctl.log).
  const std::string& dir() const { return dir_; }

 private:
  TempPostgres() = default;

  // The last lines of a log, for error messages.
  static std::string tail(const std::string& path, std::size_t max = 2000) {
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (!in && text.empty()) return "(no " + path + ")";
    if (text.size() > max) text = "..." + text.substr(text.size() - max);
    return text;
  }

  static pid_t read_pid(const std::string& pid_file) {
    std::ifstream in(pid_file);
    long pid = 0;
    in >> pid;
    return in ? static_cast<pid_t>(pid) : 0;
  }

  // The children's whole environment: nothing of the test's (PGDATA, PGHOST, LD_PRELOAD...).
  static std::vector<std::string> environment() {
    return {"PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C"};
  }

  static std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
  }

  // Runs args[0] (an absolute path) in the folder, as the postgres user if the test is root,
  // with stdin from /dev/null and stdout and stderr appended to `log`. Returns its exit status;
  // kills it if it is still running at `deadline`.
  std::expected<int, std::string> run(std::vector<std::string> args, const std::string& log,
                                      std::chrono::steady_clock::time_point deadline) const {
    using namespace std::chrono;
    std::vector<std::string> env = environment();
    const std::vector<char*> argv = pointers(args);
    const std::vector<char*> envp = pointers(env);
    const bool drop = as_other_;
    const uid_t uid = uid_;
    const gid_t gid = gid_;
    const pid_t parent = ::getpid();
    // Between fork and execve, only system calls: the test process may have other threads.
    const pid_t child = ::fork();
    if (child < 0) return std::unexpected("fork: " + std::string(std::strerror(errno)));
    if (child == 0) {
      // Raw system calls: they change this (the only) thread's credentials, no glibc machinery.
      if (drop && (::syscall(SYS_setgroups, 0, nullptr) != 0 ||
                   ::syscall(SYS_setresgid, gid, gid, gid) != 0 ||
                   ::syscall(SYS_setresuid, uid, uid, uid) != 0))
        ::_exit(126);
      // Set after the credentials change, which clears it: a child dies with the test process.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(125);
      const int in = ::open("/dev/null", O_RDONLY);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      if (in < 0 || out < 0 || ::chdir(dir_.c_str()) != 0) ::_exit(124);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::close_range(3, ~0U, 0);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    auto pause = microseconds(500);
    for (;;) {
      int status = 0;
      const pid_t done = ::waitpid(child, &status, WNOHANG);
      if (done == child) {
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        return std::unexpected("killed by signal " + std::to_string(WTERMSIG(status)));
      }
      if (done < 0 && errno != EINTR)
        return std::unexpected("waitpid: " + std::string(std::strerror(errno)));
      if (steady_clock::now() >= deadline) {
        ::kill(child, SIGKILL);
        ::waitpid(child, &status, 0);
        return std::unexpected(args[0] + " timed out");
      }
      std::this_thread::sleep_for(pause);
      pause = std::min<microseconds>(pause * 2, milliseconds(20));
    }
  }

  // Starts the watchdog (see the top of the file): sh, detached (its own session, its parent
  // gone, so neither the terminal's signals nor ctest's kill of the test's children reach it),
  // reading stdin, the far end of a socket pair whose near end is close-on-exec in this process.
  std::expected<void, std::string> arm_watchdog() {
    static constexpr const char* kScript =
        "IFS= read -r msg; [ \"$msg\" = done ] && exit 0\n"
        "pid=$(head -n 1 \"$1/data/postmaster.pid\" 2>/dev/null)\n"
        "case \"$pid\" in ''|*[!0-9]*) ;; *)\n"
        "  kill -QUIT \"$pid\" 2>/dev/null; n=0\n"
        "  while kill -0 \"$pid\" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done\n"
        "  kill -0 \"$pid\" 2>/dev/null && kill -KILL \"$pid\";;\n"
        "esac\n"
        "rm -rf -- \"$1\"\n";
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
      return std::unexpected("socketpair: " + std::string(std::strerror(errno)));
    std::vector<std::string> args{"/bin/sh", "-c", kScript, "plateau-pg-watchdog", dir_};
    std::vector<std::string> env = environment();
    const std::vector<char*> argv = pointers(args);
    const std::vector<char*> envp = pointers(env);
    const pid_t child = ::fork();
    if (child < 0) {
      ::close(ends[0]);
      ::close(ends[1]);
      return std::unexpected("fork: " + std::string(std::strerror(errno)));
    }
    if (child == 0) {
      ::setsid();
      const pid_t grandchild = ::fork();
      if (grandchild != 0) ::_exit(grandchild < 0 ? 1 : 0);
      const int null = ::open("/dev/null", O_RDWR);
      if (null < 0 || ::chdir("/") != 0) ::_exit(124);
      ::dup2(ends[1], 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::close_range(3, ~0U, 0);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(ends[1]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ::close(ends[0]);
      return std::unexpected(std::string("could not start the watchdog"));
    }
    watch_fd_ = ends[0];
    return {};
  }

  std::string dir_;
  bool as_other_ = false;  // the test runs as root: children run as the postgres user
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  int watch_fd_ = -1;
};

}  // namespace plateau::test
