// Options several commands share.
export const site = { type: 'string', value: 'id', help: 'only this site (an id from content/<site>/)' } as const;
export const json = { type: 'boolean', help: 'print JSON instead of a table' } as const;
