# The benefits service as a container image: docs/decisions.md, "Production install and container".
#   podman build --format docker -t benefits-enrollment-service .     (or: docker build -t ... .)
# NODE_IMAGE: any Node.js 24 image on Debian with npm and a `node` user (uid 1000), as the official one has.
ARG NODE_IMAGE=docker.io/library/node:24-slim

# Build stage: every dependency, then dist/ (the client types from the OpenAPI document, then tsc).
FROM ${NODE_IMAGE} AS build
# Behind a TLS-inspecting proxy, npm needs its CA: mount the bundle and name it, e.g. --volume
# /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro --build-arg NODE_EXTRA_CA_CERTS=/run/build-ca.crt
# (a build-time path only: nothing of it is kept in the image).
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: prepare would build before the sources are here; no dependency needs its install script
# to build (the `node` dev dependency's would download a second Node).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN node scripts/build.mjs

# Runtime stage: the production dependencies and the built JavaScript only; no TypeScript, no sources.
FROM ${NODE_IMAGE}
ARG NODE_EXTRA_CA_CERTS
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY --from=build /app/dist ./dist
COPY LICENSE README.md CHANGELOG.md ./
# The embedded database (and its generated encryption key) live in /app/data: mount a volume there. With
# PostgreSQL (DATABASE_URL=postgres://..., BENEFITS_ENCRYPTION_KEY required) nothing is written in the image.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
ENV HOST=0.0.0.0 PORT=8080 DATABASE_URL=sqlite:/app/data/benefits.db
EXPOSE 8080
VOLUME ["/app/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The first start on an empty database prints the first admin API key in the log (podman logs / docker logs).
CMD ["node", "bin/benefits.js", "serve"]
