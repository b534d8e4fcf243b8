export const paymentretries = 1;
