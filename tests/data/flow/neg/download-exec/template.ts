export async function loadNotice(el: HTMLElement): Promise<void> {
  const res = await fetch('/static/notice.txt');
  const text = await res.text();
  el.textContent = text.trim();
  el.hidden = text.trim().length === 0;
}
