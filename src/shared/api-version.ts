/** The interface version this server speaks (API-Version header); clients send it to pin it. */
export const API_VERSION = '2023-08-25';
