/** The public origin every test build and test server is configured with. */
export const TEST_BASE_URL = 'http://catalog.test';
