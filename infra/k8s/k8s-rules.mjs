// Label selectors and NetworkPolicy rules as the validators read them (validate-rendered.mjs,
// validate-topology.mjs); plain objects from the rendered YAML in, no I/O.
export const get = (obj, dotted) => dotted.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

/** Whether a label selector (matchLabels and matchExpressions) selects `labels`. */
export function selects(selector, labels) {
  if (!selector) return false;
  const ml = selector.matchLabels || {};
  const ok = Object.entries(ml).every(([k, v]) => labels[k] === v);
  const exprs = (selector.matchExpressions || []).every((e) => {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    if (e.operator === 'In') return has && e.values.includes(labels[e.key]);
    if (e.operator === 'NotIn') return !has || !e.values.includes(labels[e.key]);
    if (e.operator === 'Exists') return has;
    if (e.operator === 'DoesNotExist') return !has;
    return false;
  });
  return ok && exprs;
}

export const nsOf = (peer) => get(peer, 'namespaceSelector.matchLabels')?.['kubernetes.io/metadata.name'];
/** A peer given by a podSelector alone is a set of pods of the policy's own namespace. */
export const podsOf = (peer) => (peer.podSelector && !peer.namespaceSelector && !peer.ipBlock ? peer.podSelector : undefined);

/** Rules of `direction` ('egress' or 'ingress') that apply to pods with `labels`: [{ namespace, pods, cidr, ports }]. */
export function rulesFor(policies, labels, direction) {
  const rules = [];
  for (const p of policies) {
    if (!selects(p.spec.podSelector, labels) && Object.keys(p.spec.podSelector || {}).length) continue;
    for (const rule of p.spec[direction] || []) {
      const ports = (rule.ports || []).map((x) => x.port);
      for (const peer of rule[direction === 'egress' ? 'to' : 'from'] || [{}])
        rules.push({ namespace: nsOf(peer), pods: podsOf(peer), cidr: get(peer, 'ipBlock.cidr'), ports });
    }
  }
  return rules;
}
/** Whether `rules` let traffic on `port` to (egress) or from (ingress) pods of this namespace with `labels`. */
export const podsAllowed = (rules, labels, port) => rules.some((r) => r.pods && selects(r.pods, labels) && r.ports.includes(port));
