# Stand-in for redis:7, from Debian's redis-server (infra/docker/local-images.sh). Like the official
# image, protected mode is off (the container's network is the boundary) and it listens on every interface.
ARG BASE=svc-local/debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/*
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
