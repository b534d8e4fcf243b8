export const token = () => 'x';
