import { z } from "zod";

export const uuid = z.uuid({ message: "Must be a UUID" });
export const timestamp = z.string().meta({ format: "date-time", example: "2026-11-21T12:00:00.000Z" });
export const messageSchema = z.object({ message: z.string() }).meta({ id: "Message", example: { message: "Done" } });
export const idParams = z.object({ id: uuid.meta({ description: "Identifier (UUID)" }) });
export type MessageBody = z.infer<typeof messageSchema>;
