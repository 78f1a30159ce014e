import express from "express";
import helmet from "helmet";
import pino from "pino";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const log = pino();
const app = express();
const port = Number(process.env.PORT || 3000);
const apiBase = process.env.USERS_API || "http://localhost:4000";
const here = path.dirname(fileURLToPath(import.meta.url));

app.use(helmet());
app.use(express.json({ limit: "100kb" }));

app.get("/health", (_req, res) => res.json({ ok: true }));

app.get("/", async (_req, res) => {
  res.type("html").send(await readFile(path.join(here, "../public/index.html"), "utf8"));
});

app.post("/notes", async (req, res) => {
  const user = await fetch(`${apiBase}/users/${req.body.userId}`, {
    headers: { Authorization: `Bearer ${process.env.USERS_API_TOKEN}` },
  }).then((r) => r.json());
  const note = { ...req.body, owner: user.name, createdAt: new Date().toISOString() };
  const saved = await fetch(`${apiBase}/notes`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(note),
  });
  res.status(saved.status).json(await saved.json());
});

app.listen(port, "127.0.0.1", () => log.info({ port }, "listening"));
