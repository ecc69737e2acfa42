// Text placed in XML or SVG (element content or a quoted attribute): the five characters XML reserves become
// character references, so a listing or owner name can never close an element or an attribute.
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
