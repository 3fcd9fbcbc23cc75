#include "server/net/static_files.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <sstream>

namespace plateau::server {

namespace fs = std::filesystem;

std::string_view mime_type(std::string_view path) {
  const auto dot = path.rfind('.');
  const auto ext = dot == std::string_view::npos ? std::string_view() : path.substr(dot);
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json" || ext == ".webmanifest") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".txt" || ext == ".md") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

namespace {

// Whether `p` is `dir` or lies below it; both canonical.
bool inside(const fs::path& p, const fs::path& dir) {
  auto pi = p.begin();
  for (auto di = dir.begin(); di != dir.end(); ++di, ++pi) {
    if (di->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

bool hidden(const fs::path& relative) {
  for (const auto& part : relative)
    if (part.native().starts_with('.')) return true;
  return false;
}

}  // namespace

StaticFiles StaticFiles::scan(const fs::path& root_dir, const std::vector<fs::path>& excluded,
                              StaticLimits limits) {
  StaticFiles out;
  std::error_code ec;
  const fs::path root = fs::canonical(root_dir, ec);
  if (ec) {
    spdlog::error("event=web_root_missing path=\"{}\" error=\"{}\"", root_dir.string(),
                  ec.message());
    return out;
  }
  std::vector<fs::path> fenced;  // canonical forms of what must never be served
  for (const auto& e : excluded) {
    std::error_code eec;
    if (auto c = fs::weakly_canonical(e, eec); !eec) fenced.push_back(std::move(c));
  }
  // Directories are walked without following symlinks: a link to a directory outside the root
  // would otherwise list its files. A link to a file is kept only when its target is inside.
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path relative = it->path().lexically_relative(root);
    if (hidden(relative)) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    std::error_code fec;
    const fs::path real = fs::canonical(it->path(), fec);
    if (fec || !inside(real, root)) continue;
    bool fenced_off = false;
    for (const auto& f : fenced) fenced_off = fenced_off || inside(real, f);
    if (fenced_off) {
      if (it->is_directory(fec)) it.disable_recursion_pending();
      continue;
    }
    if (!fs::is_regular_file(real, fec)) continue;
    const auto size = fs::file_size(real, fec);
    if (fec) continue;
    if (out.files_.size() >= limits.max_files || out.bytes_ + size > limits.max_bytes) {
      spdlog::warn("event=web_root_too_big path=\"{}\" files={} bytes={} skipped=\"{}\"",
                   root.string(), out.files_.size(), out.bytes_, relative.generic_string());
      continue;
    }
    std::ifstream in(real, std::ios::binary);
    std::ostringstream body;
    body << in.rdbuf();
    if (!in && !in.eof()) continue;
    std::string name = relative.generic_string();
    const auto mime = mime_type(name);
    out.bytes_ += body.str().size();
    out.files_.emplace(std::move(name), StaticFile{std::move(body).str(), mime});
  }
  if (ec)
    spdlog::warn("event=web_root_walk_failed path=\"{}\" error=\"{}\"", root.string(),
                 ec.message());
  return out;
}

const StaticFile* StaticFiles::find(std::string_view target) const {
  if (const auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
  if (!target.starts_with('/')) return nullptr;
  target.remove_prefix(1);
  if (target.empty()) target = "index.html";
  // Only names that the scan itself produced can match: "/etc/passwd" (from "//etc/passwd"),
  // "../x" or "%2e%2e/x" are no key of the map, whatever a file system would make of them.
  const auto it = files_.find(target);
  return it == files_.end() ? nullptr : &it->second;
}

std::vector<std::string> StaticFiles::names() const {
  std::vector<std::string> out;
  for (const auto& [name, file] : files_) out.push_back(name);
  return out;
}

}  // namespace plateau::server
