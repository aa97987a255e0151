# Stand-in for nats:2-alpine, from Debian's nats-server (infra/docker/local-images.sh), with wget for
# docker-compose.yml's health check. As in the official image, arguments starting with "-" go to nats-server.
ARG BASE=svc-local/debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends nats-server wget \
 && rm -rf /var/lib/apt/lists/*
COPY nats-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
EXPOSE 4222 6222 8222
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["nats-server"]
