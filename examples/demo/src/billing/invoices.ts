export const invoices = 1;
