# syntax=docker/dockerfile:1
# Custody Hub: one image for the API and the worker (the command picks). Not built on the maintainers' machines
# (no Docker engine there): see docs/operations.md, "What is verified here and what is not".
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY core ./core
COPY adapters ./adapters
COPY hosts ./hosts
COPY contracts-tests ./contracts-tests
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# /metrics (METRICS_PORT, 9464) defaults to 127.0.0.1 outside a container; here a scraper on the container network
# must reach it. Never publish that port beyond the internal network.
ENV METRICS_HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The unprivileged user of the official image; nothing here needs root.
USER node
EXPOSE 3000 9464
# node is PID 1 and handles SIGTERM itself (drains requests; the worker stops within WORKER_STOP_DEADLINE_S).
# The worker: command ["node", "dist/hosts/worker/main.js"]; API and worker in one process (one machine):
# ["node", "dist/hosts/serve/main.js"]; PostgreSQL migrations alone: ["node", "dist/hosts/composition/migrate-main.js"];
# key rotation: ["node", "dist/hosts/keys/rotate-main.js"].
CMD ["node", "dist/hosts/api/main.js"]
