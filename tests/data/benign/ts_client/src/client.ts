import axios from "axios";
import { readFile } from "node:fs/promises";
import { readEnv } from "./env";

const env = readEnv();
const http = axios.create({ baseURL: env.apiBase, timeout: 10_000 });

export interface Note {
  id: string;
  title: string;
  body: string;
}

export async function createNote(note: Omit<Note, "id">): Promise<Note> {
  const { data } = await http.post<Note>("/notes", note);
  return data;
}

export async function importNotes(file: string): Promise<number> {
  const notes: Note[] = JSON.parse(await readFile(file, "utf8"));
  for (const n of notes) {
    await http.post("/notes", { title: n.title, body: n.body });
  }
  return notes.length;
}

export async function ping(): Promise<boolean> {
  const res = await fetch(`${env.apiBase}/health`, { method: "GET" });
  return res.ok;
}
