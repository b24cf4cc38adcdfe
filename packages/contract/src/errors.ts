import { TRPCError } from "@trpc/server";

/**
 * The typed errors procedures and services throw. The server turns each into the spec's
 * error body in one place; the messages here are the ones section 7 names.
 */
export const messages = {
  unauthorized: "Unauthorized",
  noPermission: "Do not have permission",
  accessDenied: "Access denied",
} as const;

export const unauthorized = () => new TRPCError({ code: "UNAUTHORIZED", message: messages.unauthorized });
export const noPermission = () => new TRPCError({ code: "FORBIDDEN", message: messages.noPermission });
export const accessDenied = () => new TRPCError({ code: "FORBIDDEN", message: messages.accessDenied });
export const notFound = (message: string) => new TRPCError({ code: "NOT_FOUND", message });
export const conflict = (message: string) => new TRPCError({ code: "CONFLICT", message });
export const badRequest = (message: string) => new TRPCError({ code: "BAD_REQUEST", message });
export const unprocessable = (message: string) => new TRPCError({ code: "UNPROCESSABLE_CONTENT", message });
export const badGateway = (message: string) => new TRPCError({ code: "BAD_GATEWAY", message });
