# HAProxy for docker/compose.cluster.yml: Debian 12's own package (HAProxy 2.6, a long-term
# supported branch), run as the package's unprivileged user haproxy. The configuration is not in
# the image: compose mounts docker/haproxy.cfg at /etc/haproxy/haproxy.cfg, read-only.
# Build alone (from the repository root):
#   docker build -f docker/haproxy.Dockerfile -t plateau-haproxy docker
FROM debian:bookworm-slim
ARG DEBIAN_FRONTEND=noninteractive
# curl: the HEALTHCHECK, and reading the statistics page (haproxy.cfg, "frontend stats").
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
      'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' \
      'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/lintian/*' \
      > /etc/dpkg/dpkg.cfg.d/01-plateau-nodoc \
 && apt-get update \
 && apt-get install -y --no-install-recommends haproxy curl \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log /var/cache/debconf/*-old \
 && haproxy -v

# 8080, not 80: an unprivileged user cannot listen below 1024.
EXPOSE 8080
USER haproxy

# /ready answers 200 while at least one node is up (haproxy.cfg, "frontend stats").
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS --max-time 2 -o /dev/null http://127.0.0.1:8404/ready || exit 1

# -W: master-worker (the master reloads the configuration on SIGUSR2 without dropping
# connections); -db: stays in the foreground, logging to stdout. SIGUSR1 stops it gracefully:
# it stops accepting, and closes what is still open after hard-stop-after (10 s).
STOPSIGNAL SIGUSR1
ENTRYPOINT ["/usr/sbin/haproxy", "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"]

LABEL org.opencontainers.image.title="Plateau HAProxy" \
      org.opencontainers.image.description="HAProxy from Debian 12, in front of several Plateau nodes"
