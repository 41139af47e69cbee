const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text from the server made safe to place in markup (element text and quoted attributes). */
export function escapeHtml(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
