# svc as a container image: `docker build -t svc .`, then `docker run -p 8080:8080 svc` serves the
# HTTP API, and `docker run --rm svc svc run …` runs the CLI. docs/deploy.md says what was and was not
# tried (spec/packaging/image.spec.ts replays these steps without a container engine).

# One base for both stages, pinned by tag.
ARG NODE_IMAGE=node:20.19-alpine3.21

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY lib ./lib
COPY operators ./operators
# The web console's source, and what it bundles: the scenario schema and the editor's starter file.
COPY console ./console
COPY schema ./schema
COPY examples/quickstart.yaml ./examples/
# Every dependency; the prepare script compiles the TypeScript into dist/ (tsc -p tsconfig.build.json) and
# bundles the web console into dist/console (console/build.ts).
RUN npm ci --no-audit --no-fund
# Production dependencies only; the optional ones (the protocol packages) stay.
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production PATH=/app/bin:$PATH
COPY --from=build /app/package.json ./
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/node_modules ./node_modules
# Served at GET /openapi.json.
COPY docs/openapi.json ./docs/
# Named by the modeline of the files svc new writes (svc schema prints the same).
COPY schema/scenario.schema.json ./schema/
# The base image's unprivileged user `node`, by number so that runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8080
# No shell and no entrypoint script in between: the launcher's `env node` execs node, which gets
# SIGTERM itself and flushes every scenario before it exits.
ENTRYPOINT []
CMD ["svc-server", "--port", "8080", "--bind", "0.0.0.0"]
