# A stand-in for the official redis:7-bookworm image, for tests/docker/cluster-check.sh only,
# from Debian 12's Redis 7: redis-server and redis-cli on the PATH, the redis user, /data.
FROM debian:bookworm-slim
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server redis-tools \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
WORKDIR /data
USER redis
CMD ["redis-server"]
