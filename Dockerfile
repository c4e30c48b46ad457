# The `ordinal` server image (deploy/server.yaml runs `ordinal serve` from it).
# Build: docker build -t REGISTRY/ordinal:TAG . ; then point deploy/kustomization.yaml's `images:` at it.
# Stage 1 bundles the TypeScript into dist/node (npm run build:node: ordinal.mjs and the chunks it
# loads on demand, what `npm run e2e` runs against the real kube-apiserver); stage 2 is that on a distroless Node
# runtime: no shell, no package manager, non-root (65532), meant for a read-only root filesystem
# (the server writes nothing: its certificate lives in a Secret and in memory).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build:node

FROM gcr.io/distroless/nodejs20-debian12:nonroot
COPY --from=build /src/dist/node /app
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/nodejs/bin/node", "/app/ordinal.mjs"]
CMD ["serve"]
