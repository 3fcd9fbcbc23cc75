// /metrics: the server's figures in Prometheus's text format (0.0.4).
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace plateau::server {

class Server;

// Writes the text format, one helper per kind of metric: each writes its HELP and TYPE lines,
// then its samples.
class PromText {
 public:
  template <class V>
  void counter(std::string_view name, std::string_view help, const V& value) {
    family(name, help, "counter");
    out_ << name << ' ' << value << '\n';
  }
  template <class V>
  void gauge(std::string_view name, std::string_view help, const V& value) {
    family(name, help, "gauge");
    out_ << name << ' ' << value << '\n';
  }
  // A metric with labels: family() once, then one labelled() a sample.
  void family(std::string_view name, std::string_view help, std::string_view type) {
    out_ << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  }
  template <class V>
  void labelled(std::string_view name, std::string_view labels, const V& value) {
    out_ << name << '{' << labels << "} " << value << '\n';
  }
  // For what writes itself whole (the latency histograms).
  std::ostream& stream() { return out_; }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

// Everything /metrics shows: connections, rooms, moves, refusals, latencies, the store.
std::string metrics_text(Server& server);

}  // namespace plateau::server
