export const login = () => true;
