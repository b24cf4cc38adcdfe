import { toApiError } from "@modpack/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode, useState } from "react";
import { createRoot } from "react-dom/client";
import { createApiClient, TRPCProvider } from "./api";
import { App } from "./app";
import "./styles.css";

function isTransient(error: unknown): boolean {
  const { status } = toApiError(error);
  return status === 0 || status >= 500;
}

function Root() {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // An answer the service gave on purpose (400, 401, 404, ...) stays as it is; only an
          // unreachable or failing service is asked again.
          queries: { staleTime: 10_000, retry: (failures, error) => failures < 2 && isTransient(error) },
        },
      }),
  );
  const [trpcClient] = useState(createApiClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <App />
      </TRPCProvider>
    </QueryClientProvider>
  );
}

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <Root />
    </StrictMode>,
  );
}
