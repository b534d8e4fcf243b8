export const log = () => {};
