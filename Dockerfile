# syntax=docker/dockerfile:1
# training-api: build with the compiler and native toolchain, run with neither, as an unprivileged user.
#   docker build -t training-api .
#   docker run -p 8443:8443 -v training-api-data:/data training-api

# Node.js 24.18: better-sqlite3 12 compiled against the headers of 24.19 or later aborts the process when a
# statement is garbage-collected (see docs/deploy.md, "Node.js 24.19 and later").
FROM node:24.18-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24.18-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8443 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist/src ./dist/src
COPY LICENSE README.md ./
# The SQLite database, the self-signed certificate and the bootstrap token live in the volume.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8443
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "bin/training-api.js", "healthcheck"]
CMD ["node", "bin/training-api.js", "serve"]
