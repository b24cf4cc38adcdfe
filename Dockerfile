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
# Node with the flags of `pnpm start`, read from package.json's config.nodeFlags (see
# apps/server/src/node-flags.ts); `exec` leaves node as the container's main process, so it gets SIGTERM.
CMD ["sh", "-c", "exec node $(node -p 'require(\"./package.json\").config.nodeFlags') dist/main.js"]
