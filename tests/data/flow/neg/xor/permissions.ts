export enum Perm {
  Read = 0x01,
  Write = 0x02,
  Exec = 0x04,
  Admin = 0x80,
}

export function toggle(mask: number, flag: Perm): number {
  return mask ^ flag;
}

export function has(mask: number, flag: Perm): boolean {
  return (mask & flag) !== 0;
}

// In-place swap without a temporary, used by the grid editor.
export function swapCells(cells: Uint8Array, i: number, j: number): void {
  if (i === j) return;
  cells[i] ^= cells[j];
  cells[j] ^= cells[i];
  cells[i] ^= cells[j];
}

export function describe(mask: number): string {
  const names: string[] = [];
  if (has(mask, Perm.Read)) names.push("read");
  if (has(mask, Perm.Write)) names.push("write");
  if (has(mask, Perm.Exec)) names.push("exec");
  if (has(mask, Perm.Admin)) names.push("admin");
  return names.join(",") || "none";
}

let mask = Perm.Read | Perm.Write;
mask = toggle(mask, Perm.Exec);
console.log(describe(mask));
