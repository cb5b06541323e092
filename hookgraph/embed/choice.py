"""Which embedder a repository uses: ``.hookgraph/config.toml`` and the store's pin.

One place makes embedders (sync, ``ask``, ``model show``), so ``hookgraph
model use`` switches them all; and one place decides whether a store's
vectors may be used with that embedder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hookgraph.embed import Embedder, EmbedderError
from hookgraph.models import default_model_path

__all__ = ["configured_model_path", "embedder_for_repo", "store_mismatch"]

def configured_model_path(root: Path | None, value: Any) -> Path:
    """``[model] path`` resolved: ``~`` expanded, relative to the repo root; default if unset."""
    if value is None or value == "":
        return default_model_path()
    path = Path(os.path.expanduser(str(value)))
    if not path.is_absolute() and root is not None:
        path = Path(root) / path
    return path


def embedder_for_repo(
    root: Path | None,
    *,
    embed_url: str | None = None,
    use_remote: bool = False,
) -> Embedder:
    """The embedder ``.hookgraph/config.toml`` asks for (the shipped model by default).

    ``[model]`` gives the GGUF and any prefix/budget overrides; ``embed_url``
    (``index --embed-url``), else ``[embed] url`` when ``use_remote``, sends
    documents to a llama.cpp server. Only ``hookgraph index`` asks for the
    remote: hooks and queries embed a handful of texts, faster here than a
    round trip, and must not fail because a server is down. Cheap: nothing
    is loaded.
    """
    from hookgraph import config

    try:
        model = config.section(root, "model") if root is not None else {}
        embed = config.section(root, "embed") if root is not None else {}
    except config.ConfigError as exc:
        raise EmbedderError(str(exc)) from None
    where = f"{config.config_path(root)}" if root is not None else "config"
    kwargs: dict[str, Any] = {}
    for key in ("query_prefix", "document_prefix"):
        if key in model:
            if not isinstance(model[key], str):
                raise EmbedderError(f"{where}: [model] {key} must be a string")
            kwargs[key] = model[key]
    if "max_tokens" in model:
        if not isinstance(model["max_tokens"], int) or isinstance(model["max_tokens"], bool) or model["max_tokens"] < 8:
            raise EmbedderError(f"{where}: [model] max_tokens must be an integer >= 8")
        kwargs["max_tokens"] = model["max_tokens"]
    if "path" in model and not isinstance(model["path"], str):
        raise EmbedderError(f"{where}: [model] path must be a string")
    path = configured_model_path(root, model.get("path"))
    url = embed_url or (embed.get("url") if use_remote else None)
    if url:
        if not isinstance(url, str):
            raise EmbedderError(f"{where}: [embed] url must be a string")
        batch = embed.get("batch_size", 8)
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise EmbedderError(f"{where}: [embed] batch_size must be a positive integer")
        from hookgraph.embed.remote import RemoteEmbedder

        return RemoteEmbedder(url, path, batch_size=batch, **kwargs)
    return Embedder(path, **kwargs)


def store_mismatch(get_meta: Any, embedder: Embedder) -> str | None:
    """Why a store's vectors cannot be used with ``embedder`` (one line), or None if they can.

    ``get_meta`` is ``Store.get_meta``. The store pins the embedding recipe:
    model SHA-256 (so a same-dimension swap is caught), document prefix and
    window size. Stores written before the recipe was recorded are checked
    on the model, prefix and window fields they do have.
    """
    stored_sha = get_meta("model_sha256")
    if not stored_sha:
        return None
    fix = "run `hookgraph index --reembed` (or `hookgraph index --full`) to re-embed it"
    old_name = get_meta("model_name") or "another model"
    if stored_sha != embedder.model_sha256:
        old_file = get_meta("model_file")
        old = f"{old_name}" + (f" ({old_file}" if old_file else " (") + f", sha256 {stored_sha[:12]})"
        return (
            f"the index was embedded with {old} but the model in use is {embedder.model_name} "
            f"({embedder.model_path.name}, sha256 {embedder.model_sha256[:12]}): {fix} with the new model, "
            f"or switch back with `hookgraph model use`"
        )
    recipe = get_meta("embed_recipe")
    if recipe is not None and recipe == embedder.recipe:
        return None
    old_prefix = get_meta("document_prefix")
    old_tokens = get_meta("max_tokens")
    changes = []
    if old_prefix is not None and old_prefix != embedder.document_prefix:
        changes.append(f"document prefix {old_prefix!r} -> {embedder.document_prefix!r}")
    if old_tokens is not None and old_tokens != str(embedder.max_tokens):
        changes.append(f"window {old_tokens} -> {embedder.max_tokens} tokens")
    if recipe is None and not changes:
        return None  # an older store with the same model, prefix and window
    what = "; ".join(changes) or "windowing changed"
    return f"the index was embedded with {old_name} under another recipe ({what}): {fix}"
