FROM node:24-slim AS build
WORKDIR /app
RUN npm install -g pnpm@10.34.9
COPY . .
# The server's build bundles the contract and writes the embedded database template beside it.
RUN pnpm install --frozen-lockfile \
  && pnpm exec turbo run build --filter=@modpack/server \
  && pnpm deploy --legacy --filter=@modpack/server --prod /out

FROM node:24-slim
WORKDIR /app
ENV NODE_ENV=production
# Without DATABASE_URL the embedded database keeps its files here (mount a volume on it).
ENV DATA_DIR=/data
COPY --from=build /out .
RUN mkdir -p /data && chown node:node /data
# Not root: the image's own unprivileged user.
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The flags of apps/server/src/node-flags.ts (a test holds them equal): --liftoff-only starts the
# embedded database (PGlite, WebAssembly) in half the memory; a 16 MB young generation and an old
# generation growing to at most twice its live size keep the RSS near 250 MB under load.
CMD ["node", "--liftoff-only", "--max-semi-space-size=16", "--heap-growing-percent=100", "dist/main.js"]
