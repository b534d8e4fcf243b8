export const refunds = 1;
