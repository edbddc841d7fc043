# The production image: `docker build -t ssr-app .`, then
# `docker run -p 3000:3000 -e SESSION_SECRET=... ssr-app` (docs/deploy.md, "Container image").
# test/deploy/dockerfile.test.ts checks what this file promises, and runs the image's
# command the way the image does (as PID 1 of its own PID namespace).

ARG NODE_IMAGE=node:20-bookworm-slim

# Stage 1: every dependency, the type check and the build (dist/client + dist/server).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

# Stage 2: what runs. The server bundle leaves node_modules external, so the production
# dependencies are installed here; package.json stays beside dist/ ("type": "module").
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 UPLOAD_DIR=/tmp
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
# The node images' unprivileged "node" user, by number so that Kubernetes' runAsNonRoot
# can verify it. The app's files stay root's: the process cannot change its own code.
# /tmp (UPLOAD_DIR) is writable by every user.
USER 1000:1000
EXPOSE 3000
# main.ts drains on SIGTERM (readiness 503, in-flight requests finish, exit 0).
STOPSIGNAL SIGTERM
# node itself: the slim images have no curl or wget.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node as PID 1, never npm: npm does not wait for the drain. main.ts installs its own
# SIGTERM/SIGINT handlers, which PID 1 needs (the kernel gives it no default action).
CMD ["node", "dist/server/main.js"]
