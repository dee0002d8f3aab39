# syntax=docker/dockerfile:1
# sourcepool as a container image: `docker build -t sourcepool .` from the repository
# root (the build context). Running it, the variables it needs and the compose file
# that uses it: docs/deployment.md.

# Dependencies stage: the production dependencies, with what better-sqlite3 needs
# to compile its native module when no prebuilt binary fits.
FROM node:20-bookworm-slim AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# Build stage: the TypeScript compiled to dist/ (`npm run build`, as `npm start`
# does before it starts). tsc needs no install script, so none runs here.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Runtime stage: Node, the dependencies and the compiled service built above; no
# compiler, no dev dependencies, not root. src/ comes too: the dashboard's files
# are read from src/ui/public, and the `sourcepool` command (bin/) runs its
# TypeScript through tsx.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATABASE_URL=sqlite:/data/pools.db
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY --from=build /app/dist ./dist
# The SQLite database lives on a volume owned by the image's unprivileged `node`
# user; with PostgreSQL (DATABASE_URL=postgres://...) it stays empty.
RUN mkdir /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8000
# HOST=0.0.0.0 is not loopback: the service refuses to start without tokens
# (AUTH_TOKENS, or AUTH_TOKENS_FILE naming a mounted file), exit code 2.
# /healthz answers 200 while the database answers and takes writes.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node itself as PID 1, the compiled service with no TypeScript loader (what
# `npm start` runs): SIGTERM (docker stop) starts the graceful shutdown
# (SHUTDOWN_TIMEOUT_MS, 10 s by default; docker waits 10 s before SIGKILL).
# WORKERS=2 (or auto) makes it a cluster primary passing the signal on.
CMD ["node", "dist/main.js"]
