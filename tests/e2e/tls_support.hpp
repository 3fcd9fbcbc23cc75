// HTTPS and wss:// for the end-to-end tests: a self-signed certificate made at test time with
// OpenSSL's C API (no `openssl` command needed), and the plain test clients (BasicWsClient,
// BasicSeat, http_exchange) run over a TLS stream that checks the server's certificate.
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp forgets it

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::client {

// Under a wss:// client: the TLS handshake, checking that the certificate names `host`.
template <>
struct Transport<boost::beast::ssl_stream<boost::beast::tcp_stream>> {
  template <class Handler>
  static void async_start(boost::beast::ssl_stream<boost::beast::tcp_stream>& stream,
                          const std::string& host, Handler&& handler) {
    boost::system::error_code not_an_address;
    boost::asio::ip::make_address(host, not_an_address);
    if (not_an_address)
      SSL_set_tlsext_host_name(stream.native_handle(), host.c_str());  // SNI names hosts only
    stream.set_verify_callback(boost::asio::ssl::host_name_verification(host));
    stream.async_handshake(boost::asio::ssl::stream_base::client, std::forward<Handler>(handler));
  }
};

using WssClient = BasicWsClient<boost::beast::ssl_stream<boost::beast::tcp_stream>>;

}  // namespace plateau::client

namespace plateau::testing {

using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
using TlsSeat = BasicSeat<client::WssClient>;

// A directory removed with everything in it when the test is done.
struct TempDir {
  TempDir()
      : path(std::filesystem::temp_directory_path() /
             ("plateau-tls-" + std::to_string(::getpid()) + "-" +
              std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path path;
};

struct CertFiles {
  std::filesystem::path cert;
  std::filesystem::path key;
};

// Writes DIR/NAME.crt and DIR/NAME.key: a fresh P-256 key and a self-signed certificate for
// 127.0.0.1 and localhost, valid from an hour ago for a day. Empty paths if OpenSSL failed.
inline CertFiles make_self_signed(const std::filesystem::path& dir, const std::string& name) {
  struct Free {
    void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
    void operator()(X509* p) const { X509_free(p); }
    void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const std::unique_ptr<EVP_PKEY, Free> key(EVP_EC_gen("P-256"));
  const std::unique_ptr<X509, Free> cert(X509_new());
  if (!key || !cert) return {};
  bool ok = X509_set_version(cert.get(), 2) == 1 &&
            ASN1_INTEGER_set(X509_get_serialNumber(cert.get()),
                             static_cast<long>(std::random_device{}() >> 1)) == 1 &&
            X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr &&
            X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600) != nullptr &&
            X509_set_pubkey(cert.get(), key.get()) == 1;
  X509_NAME* subject = X509_get_subject_name(cert.get());
  ok = ok &&
       X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                                  reinterpret_cast<const unsigned char*>("plateau test"), -1, -1,
                                  0) == 1 &&
       X509_set_issuer_name(cert.get(), subject) == 1;
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  for (const auto& [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost"},
                                   std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
    const std::unique_ptr<X509_EXTENSION, Free> ext(
        X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value));
    ok = ok && ext && X509_add_ext(cert.get(), ext.get(), -1) == 1;
  }
  ok = ok && X509_sign(cert.get(), key.get(), EVP_sha256()) > 0;
  if (!ok) return {};
  CertFiles files{dir / (name + ".crt"), dir / (name + ".key")};
  const std::unique_ptr<std::FILE, Free> c(std::fopen(files.cert.c_str(), "wb"));
  const std::unique_ptr<std::FILE, Free> k(std::fopen(files.key.c_str(), "wb"));
  if (!c || !k || PEM_write_X509(c.get(), cert.get()) != 1 ||
      PEM_write_PrivateKey(k.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
    return {};
  return files;
}

// A client context that trusts `cert` alone (TLS 1.2 and later).
inline std::unique_ptr<boost::asio::ssl::context> trusting(const std::filesystem::path& cert) {
  auto ctx = std::make_unique<boost::asio::ssl::context>(boost::asio::ssl::context::tls_client);
  ctx->set_verify_mode(boost::asio::ssl::verify_peer);
  ctx->load_verify_file(cert.string());
  return ctx;
}

// A wss:// seat connected to 127.0.0.1:port that said hello.
inline std::unique_ptr<TlsSeat> connect_tls(boost::asio::ssl::context& ctx, unsigned short port,
                                            const std::string& name) {
  auto s = std::make_unique<TlsSeat>(ctx);
  greet(*s, port, name);
  return s;
}

// One HTTPS request to 127.0.0.1:port; status 0 when the connection or the handshake failed.
inline HttpReply https_request(boost::asio::ssl::context& ctx, unsigned short port,
                               boost::beast::http::verb method, const std::string& target,
                               const std::string& body = "") {
  boost::asio::io_context ioc;
  TlsStream stream(ioc, ctx);
  boost::beast::error_code ec;
  if (!connect_loopback(ioc, stream, port, ec)) return {};
  client::Transport<TlsStream>::async_start(stream, "127.0.0.1",
                                            [&](boost::beast::error_code e) { ec = e; });
  run_all(ioc);
  if (ec) return {};
  return http_exchange(ioc, stream, method, target, body);
}

inline HttpReply https_get(boost::asio::ssl::context& ctx, unsigned short port,
                           const std::string& target) {
  return https_request(ctx, port, boost::beast::http::verb::get, target);
}

}  // namespace plateau::testing
