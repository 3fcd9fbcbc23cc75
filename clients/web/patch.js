// RFC 6902 JSON Patch, the subset the server sends (add, remove, replace, move, copy, test),
// applied to a deep copy so a failed patch leaves the old state untouched.

function unescape(token) {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePath(path) {
  if (path === '') return [];
  if (path[0] !== '/') throw new Error('bad path ' + path);
  return path.slice(1).split('/').map(unescape);
}

function parentOf(doc, tokens) {
  let node = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    node = Array.isArray(node) ? node[Number(tokens[i])] : node[tokens[i]];
    if (node === undefined || node === null || typeof node !== 'object') throw new Error('no parent');
  }
  return node;
}

function get(doc, tokens) {
  let node = doc;
  for (const t of tokens) {
    node = Array.isArray(node) ? node[Number(t)] : node[t];
    if (node === undefined) throw new Error('no value');
  }
  return node;
}

function put(doc, tokens, value, insert) {
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (insert) parent.splice(i, 0, value);
    else parent[i] = value;
  } else {
    parent[key] = value;
  }
  return doc;
}

function drop(doc, tokens) {
  const parent = parentOf(doc, tokens);
  const key = tokens[tokens.length - 1];
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return doc;
}

export function applyPatch(state, ops) {
  let doc = structuredClone(state);
  for (const op of ops) {
    const path = parsePath(op.path);
    switch (op.op) {
      case 'add': doc = put(doc, path, structuredClone(op.value), true); break;
      case 'replace': doc = put(doc, path, structuredClone(op.value), false); break;
      case 'remove': doc = drop(doc, path); break;
      case 'move': {
        const from = parsePath(op.from);
        const v = get(doc, from);
        doc = drop(doc, from);
        doc = put(doc, path, v, true);
        break;
      }
      case 'copy': doc = put(doc, path, structuredClone(get(doc, parsePath(op.from))), true); break;
      case 'test':
        if (JSON.stringify(get(doc, path)) !== JSON.stringify(op.value)) throw new Error('test failed');
        break;
      default: throw new Error('unknown op ' + op.op);
    }
  }
  return doc;
}
