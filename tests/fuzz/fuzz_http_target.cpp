// Fuzzes what a request's bytes reach before any answer: Beast's request parser, with the limits
// the server's connections set, then the parsed target through the static-file lookup
// (StaticFiles::find), as http_api.cpp's serve_file does; the whole input is also looked up as a
// target by itself, which reaches the lookup with any bytes at all.
//
// The lookup runs over a web root this program makes at start in a temporary folder: a few files,
// a hidden one, a data folder left out as the server leaves out its own, and symlinks: one to a
// file inside the root, one to a file outside it, one to a folder outside it, one to /etc/passwd.
// Checked: whatever find returns is one of the root's own files, the one the target names,
// never what lies outside, hidden or in the data folder; every file of the root is found by
// its name. Kept in a file of its own: Beast's parser is slow to compile with clang.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/buffers_prefix.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "check.hpp"
#include "server/net/static_files.hpp"

namespace {

namespace fs = std::filesystem;
namespace http = boost::beast::http;
using plateau::server::StaticFiles;

// server/net/connections.hpp's kMaxHeaderBytes and kMaxBodyBytes.
constexpr std::size_t kHeaderLimit = 16 * 1024;
constexpr std::size_t kBodyLimit = 1024 * 1024;

struct WebRoot {
  fs::path base;                                // the temporary folder holding root/ and outside/
  std::map<std::string, std::string> servable;  // name under the root -> its content
  std::vector<std::string> forbidden;           // contents that must never be served
  StaticFiles files;

  WebRoot() {
    std::string pattern = (fs::temp_directory_path() / "plateau-fuzz-webroot-XXXXXX").string();
    FUZZ_CHECK(::mkdtemp(pattern.data()) != nullptr, "cannot make a temporary folder");
    base = pattern;
    const fs::path root = base / "root";
    fs::create_directories(root / "games");
    fs::create_directories(root / "data");
    fs::create_directories(base / "outside");
    auto write = [](const fs::path& p, const std::string& text) {
      std::ofstream(p, std::ios::binary) << text;
    };
    auto serve = [&](const std::string& name, const std::string& text) {
      write(root / name, text);
      servable[name] = text;
    };
    serve("index.html", "<!doctype html><title>index</title>");
    serve("app.js", "console.log('app');");
    serve("games/quantik.js", "export const quantik = 1;");
    serve("a b%2e.css", "body{}");
    auto forbid = [&](const fs::path& p, const std::string& text) {
      write(p, text);
      forbidden.push_back(text);
    };
    forbid(root / ".env", "HIDDEN-SECRET");
    forbid(root / "data" / "plateau.db", "DATA-SECRET");
    forbid(base / "outside" / "secret.txt", "OUTSIDE-SECRET");
    fs::create_symlink("index.html", root / "home.html");  // inside: served as itself
    servable["home.html"] = servable["index.html"];
    fs::create_symlink("../outside/secret.txt", root / "leak.txt");
    fs::create_symlink("../outside", root / "outdir");
    fs::create_symlink("/etc/passwd", root / "passwd");
    files = StaticFiles::scan(root, {root / "data"});
    FUZZ_CHECK(files.size() == servable.size(),
               "the scan did not list exactly the root's own files");
    for (const auto& [name, text] : servable) {
      const auto* f = files.find("/" + name);
      FUZZ_CHECK(f && f->body == text, "a file of the root is not found by its name: " + name);
    }
  }
  ~WebRoot() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
};

WebRoot* web_root = nullptr;

// The lookup's answer for `target`: nothing, or exactly the file the target names.
void check_find(std::string_view target) {
  const auto* file = web_root->files.find(target);
  if (!file) return;
  for (const auto& secret : web_root->forbidden)
    FUZZ_CHECK(file->body != secret, "served a file from outside the root: " + std::string(target));
  std::string_view name = target.substr(0, target.find('?'));
  FUZZ_CHECK(name.starts_with('/'), "served a target that does not start with '/'");
  name.remove_prefix(1);
  if (name.empty()) name = "index.html";
  const auto it = web_root->servable.find(std::string(name));
  FUZZ_CHECK(it != web_root->servable.end(),
             "served a name that is not a file of the root: " + std::string(target));
  FUZZ_CHECK(file->body == it->second,
             "served another file than the one named: " + std::string(target));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  web_root = new WebRoot();
  std::atexit([] { delete web_root; });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_find(input);

  http::request_parser<http::string_body> parser;
  parser.header_limit(kHeaderLimit);
  parser.body_limit(kBodyLimit);
  parser.eager(true);
  boost::beast::error_code ec;
  // As a socket delivers it: in pieces, the parser taking what it can of each.
  std::string buffered;
  std::size_t fed = 0;
  const std::size_t piece = 1 + size % 97;
  while (!ec && !parser.is_done() && fed < size) {
    const std::size_t n = std::min(piece, size - fed);
    buffered.append(input.substr(fed, n));
    fed += n;
    const std::size_t used = parser.put(boost::asio::buffer(buffered), ec);
    if (ec == http::error::need_more) ec = {};
    buffered.erase(0, used);
  }
  if (!ec && !parser.is_done() && parser.is_header_done()) {
    parser.put_eof(ec);  // the client closed: a body without a length ends here
  }
  if (!parser.is_header_done()) return 0;
  const auto& req = parser.get();
  const std::string_view target(req.target().data(), req.target().size());
  FUZZ_CHECK(target.size() <= size, "a target longer than the request");
  // http_api.cpp strips the query before the lookup; find strips it too.
  std::string path(target);
  if (const auto q = path.find('?'); q != std::string::npos) path.resize(q);
  check_find(path);
  check_find(target);
  return 0;
}
