export const format = (e: object) => JSON.stringify(e);
