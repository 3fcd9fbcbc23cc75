// Building the page: HTML and SVG elements from a tag, attributes and children, and a game's
// style sheet added once. Shared by the client and every game's table.
const SVG_NS = 'http://www.w3.org/2000/svg';

// Attributes: `on…` adds a listener; false, null and undefined leave the attribute out.
// Children: nodes, or anything else as text; null, undefined, false and '' add nothing (so
// `cond && child` and `cond ? child : null` both read naturally).
function fill(e, attrs, children, booleanAsEmpty) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, booleanAsEmpty && v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false || c === '') continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// An HTML element; `true` sets a boolean attribute (disabled, hidden, ...).
export const el = (tag, attrs = {}, ...children) => fill(document.createElement(tag), attrs, children, true);

// An SVG element; attribute values are written as given.
export const svg = (tag, attrs = {}, ...children) => fill(document.createElementNS(SVG_NS, tag), attrs, children, false);

// Adds a <style id=…> to the page's head unless it is already there.
export function addStyle(id, css) {
  if (document.getElementById(id)) return;
  const style = document.createElement('style');
  style.id = id;
  style.textContent = css;
  document.head.append(style);
}
