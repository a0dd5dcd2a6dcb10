# The mcp-resilience gateway for the compose stack: `mcp-resilience gateway` (packages/proxy) serving the MCP
# servers of docker/gateway.json over Streamable HTTP at /<name>/mcp, behind the resilience layer, exporting OTLP
# to the collector (OTEL_EXPORTER_OTLP_ENDPOINT).
#
# The build context is the monorepo root:
#   docker build -f docker/proxy.Dockerfile -t mcp-resilience/proxy:0.1.0 .

FROM node:24.22.3-bookworm-slim AS build
WORKDIR /repo
ENV CI=true NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1
# better-sqlite3 (a dependency of the workspace) compiles its addon from source when no prebuilt binary matches.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# The npm version of the repository's packageManager field (pinned; the image ships its own npm 11).
RUN npm install -g npm@11.19.1 --no-audit --no-fund
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
RUN npx turbo run build --filter=@mcp-resilience/proxy...

FROM node:24.22.3-bookworm-slim
ENV OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318 OTEL_SERVICE_NAME=mcp-resilience-gateway
WORKDIR /repo
# The built workspace (its node_modules hold the example MCP servers of docker/gateway.json).
COPY --from=build --chown=node:node /repo /repo
USER node
EXPOSE 8787
# A 1 MiB young generation: the gateway keeps little per call, and V8's default (16 MiB semi-spaces) alone costs
# ~20 MB of RSS (packages/proxy/bench: 108 MB -> 88 MB with 10 upstreams).
CMD ["node", "--max-semi-space-size=1", "packages/proxy/dist/cli.js", "gateway", "--config", "/etc/mcp-resilience/gateway.json", "--host", "0.0.0.0", "--port", "8787", "--allowed-host", "gateway:8787"]
