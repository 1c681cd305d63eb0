/** Runs the built `svc-platform` CLI as a child process and waits until it listens. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../bin/svc-platform.js', import.meta.url));

export interface Running {
  child: ChildProcess;
  baseUrl: string;
  formsUrl: string;
  /** Everything printed so far. */
  output: () => string;
}

/** `env`: added to this process's environment (`DATABASE_URL`). */
export function startCli(args: string[], started: ChildProcess[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [CLI, '--port', '0', '--forms-port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  started.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/base_url (http:\/\/\S+)\s+forms_url (http:\/\/\S+)/);
      if (m) resolve({ child, baseUrl: m[1], formsUrl: m[2], output: () => out });
    });
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => reject(new Error(`svc-platform exited (${code}): ${out}`)));
  });
}
