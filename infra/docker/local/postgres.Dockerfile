# Stand-in for postgres:15, from Debian's postgresql-15 (infra/docker/local-images.sh). Honours what
# docker-compose.yml uses of the official image: POSTGRES_USER, POSTGRES_PASSWORD, PGDATA
# (/var/lib/postgresql/data), pg_isready, port 5432 on every interface, password auth over TCP.
ARG BASE=svc-local/debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
