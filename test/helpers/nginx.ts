/**
 * Real nginx (Debian's, found or installed by scripts/test.ts: NGINX_PATH) in front of
 * app instances, on a free 127.0.0.1 port, with its own config, pid and temp folders.
 * Its proxy settings are the ones docs/deploy.md recommends.
 */
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { freePort } from './ports.js'
import { tmpdir } from 'node:os'
import path from 'node:path'

type Test = { teardown(fn: () => unknown): void }

/** The proxy part of docs/deploy.md's configuration, for these upstream origins. */
export function nginxConfig(dir: string, port: number, upstreams: readonly string[], options: NginxOptions = {}): string {
  const servers = upstreams.map((origin) => `    server ${new URL(origin).host} max_fails=1 fail_timeout=2s;`).join('\n')
  return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
daemon off;
events { worker_connections 512; }
http {
  access_log off;
${options.defaultBuffering ? '  gzip on;\n  gzip_proxied any;\n' : ''}  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream app {
${servers}
    keepalive 32;
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Host $http_host;
      proxy_set_header X-Request-Id $request_id;
      proxy_set_header traceparent "";
      proxy_set_header tracestate "";
${options.defaultBuffering ? '' : '      proxy_buffering off;\n'}      proxy_next_upstream error timeout http_502 http_503 http_504;
      proxy_next_upstream_tries 2;
      proxy_connect_timeout 2s;
    }
  }
}
`
}

export interface NginxOptions {
  /**
   * As Debian's own nginx.conf has it: proxy buffering on, and `gzip on` (which holds what
   * it compresses until the upstream flushes, and an upstream response that is buffered never does).
   */
  readonly defaultBuffering?: boolean
}

export async function startNginx(t: Test, upstreams: readonly string[], options: NginxOptions = {}): Promise<string> {
  const executable = process.env.NGINX_PATH || '/usr/sbin/nginx'
  const dir = mkdtempSync(path.join(tmpdir(), 'app-test-nginx-'))
  // Workers may run as another user (nginx as root drops to "nobody"): let them write.
  chmodSync(dir, 0o777)
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    mkdirSync(path.join(dir, sub))
    chmodSync(path.join(dir, sub), 0o777)
  }
  const port = await freePort()
  const conf = path.join(dir, 'nginx.conf')
  writeFileSync(conf, nginxConfig(dir, port, upstreams, options))
  const child = spawn(executable, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    }
    rmSync(dir, { recursive: true, force: true })
  })
  const origin = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`)
    try {
      await fetch(`${origin}/api/health`)
      return origin
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not start: ${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
