# Demo agents for the compose stack: simulated agents (resilient and naive retry loops) calling chaos MCP servers,
# exporting OTLP to the collector instead of starting their own dashboard.
#
# Entry point: the demo of packages/demo (`npm run demo`) with `--otlp-endpoint <collector>`: it then starts the
# chaos MCP servers and the agents only, and the agents export there. The endpoint is OTEL_EXPORTER_OTLP_ENDPOINT
# (docker-compose.yml sets it to the collector). The workspace script runs the built CLI directly: the image is
# already built, so the root script's turbo pass is not needed.
#
# The build context is the monorepo root:
#   docker build -f docker/demo.Dockerfile -t mcp-resilience/demo:0.1.0 .

FROM node:24.22.3-bookworm-slim AS build
WORKDIR /repo
ENV CI=true NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1
# better-sqlite3 compiles its addon from source when no prebuilt binary matches: python3, make and g++.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# The npm version of the repository's packageManager field (the image ships npm 10).
RUN npm install -g npm@11.19.1 --no-audit --no-fund
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
RUN npx turbo run build

FROM node:24.22.3-bookworm-slim
ENV NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1 \
  OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318
WORKDIR /repo
# The built workspace, owned by the non-root user (the demo may write its chaos ground-truth logs here).
COPY --from=build --chown=node:node /repo /repo
USER node
# exec: npm becomes the main process and receives docker stop's SIGTERM (compose adds an init to forward it).
CMD ["sh", "-c", "exec npm run demo --workspace=@mcp-resilience/demo -- --otlp-endpoint \"$OTEL_EXPORTER_OTLP_ENDPOINT\""]
