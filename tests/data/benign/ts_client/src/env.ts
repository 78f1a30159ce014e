// Typed access to the environment variables this service reads.
export interface Env {
  port: number;
  apiBase: string;
  logLevel: "debug" | "info" | "warn" | "error";
}

export function readEnv(): Env {
  return {
    port: Number(process.env.PORT ?? 8080),
    apiBase: process.env.API_BASE ?? "http://localhost:4000",
    logLevel: (process.env.LOG_LEVEL as Env["logLevel"]) ?? "info",
  };
}

export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
