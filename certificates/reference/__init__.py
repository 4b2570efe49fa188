"""Independent reference routes for the certificates: written from the papers, sharing no library code."""
