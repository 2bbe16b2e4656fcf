// The layers of src/, lowest first: each folder may import only the folders it names (and itself).
// docs/ARCHITECTURE.md draws the same table; eslint.config.mjs turns it into import-x/no-restricted-paths zones.
const BELOW_CLIENT = ['core', 'operators', 'wire', 'source', 'telemetry'];
const BELOW_ADAPTERS = [...BELOW_CLIENT, 'client', 'serve', 'node', 'store'];

/** @type {Record<string, readonly string[]>} */
export const LAYERS = {
  core: [],
  operators: ['core'],
  wire: ['core'],
  source: ['core'],
  telemetry: ['core'],
  store: ['core'],
  redis: ['core', 'store'],
  client: [...BELOW_CLIENT, 'store'],
  serve: [...BELOW_CLIENT, 'client', 'store'],
  tools: [...BELOW_CLIENT, 'client'],
  node: [...BELOW_CLIENT, 'client', 'serve', 'store'],
  express: BELOW_ADAPTERS,
  nestjs: BELOW_ADAPTERS,
  web: [...BELOW_CLIENT, 'client', 'serve', 'store'],
  testing: ['core'],
};

/**
 * Public entry barrels that re-export a layer beside their own: `chatflux/operators` also offers the wire's operator
 * faces (`toSse`, `toNdjson`), as `rxjs/operators` offers every operator.
 */
const BARREL_REEXPORTS = { operators: ['wire'] };

/** One zone per (layer, folder it may not import): the layer's files may not import that folder. */
export function layerZones(layers) {
  const zones = [];
  for (const [layer, allowed] of Object.entries(layers)) {
    for (const other of Object.keys(layers)) {
      if (other === layer || allowed.includes(other)) continue;
      const barrelMay = BARREL_REEXPORTS[layer]?.includes(other) === true;
      zones.push({
        target: barrelMay ? `./src/${layer}/!(index).ts` : `./src/${layer}`,
        from: `./src/${other}`,
        message:
          `${layer}/ may not import ${other}/: it may import only ${allowed.length === 0 ? 'itself' : allowed.map((name) => `${name}/`).join(', ')} ` +
          '(scripts/layers.mjs, docs/ARCHITECTURE.md). Move the shared piece down to a layer both may import.',
      });
    }
  }
  return zones;
}
