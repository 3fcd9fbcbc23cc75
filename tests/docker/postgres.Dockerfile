# A stand-in for the official postgres:15-bookworm image, for tests/docker/cluster-check.sh only:
# this machine reaches no registry, so the check builds it from Debian 12's PostgreSQL 15. It
# honours what compose.cluster.yml uses of the official image: POSTGRES_USER, POSTGRES_PASSWORD
# and POSTGRES_DB on a first start, its data in /var/lib/postgresql/data, run as postgres.
FROM debian:bookworm-slim
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql \
 && chmod 700 /var/lib/postgresql/data
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entry.sh /usr/local/bin/postgres-entry.sh
USER postgres
STOPSIGNAL SIGINT
ENTRYPOINT ["/bin/sh", "/usr/local/bin/postgres-entry.sh"]
