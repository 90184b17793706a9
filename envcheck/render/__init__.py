"""Renderers: turn a frozen result into text, markdown or JSON."""
