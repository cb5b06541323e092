"""``hookgraph model show | use PATH.gguf | convert DIR OUT.gguf``: the embedding model.

Registered on the main group through :data:`hookgraph.cli.COMMAND_MODULES`.
The choice of model lives in ``.hookgraph/config.toml`` (``[model] path``, see
:mod:`hookgraph.config`); every embedder hookgraph makes comes from
:func:`hookgraph.embed.choice.embedder_for_repo`, so ``use`` switches them all.
Importing this module costs click only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from hookgraph.cli.common import UserError, one_line_errors

POOLING_NAMES = {0: "none", 1: "mean", 2: "cls", 3: "last-token", 4: "rank"}


def _root_or_none() -> Path | None:
    from hookgraph.git import GitError, repo_root

    try:
        return repo_root(Path.cwd())
    except GitError:
        return None


def _display_path(path: Path, root: Path | None) -> str:
    """How to write a model path in config: repo-relative, ``~/...``, or absolute."""
    path = path.resolve()
    if root is not None:
        try:
            return path.relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    home = Path.home().resolve()
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def describe(embedder: Any) -> dict[str, Any]:
    """What ``model show`` prints, from the GGUF header (no model load)."""
    pooling = embedder._arch_key("pooling_type")
    if pooling is None:  # older conversions: the family's pooling is used
        pooling = embedder.preset.pooling
    return {
        "name": embedder.model_name,
        "file": str(embedder.model_path),
        "sha256": embedder.model_sha256,
        "architecture": embedder._metadata().get("general.architecture"),
        "family": embedder.preset.family,
        "dims": embedder.dims,
        "pooling": POOLING_NAMES.get(int(pooling), str(pooling)),
        "context_length": embedder._arch_key("context_length"),
        "window_tokens": embedder.max_tokens,
        "max_windows": embedder.max_windows,
        "query_prefix": embedder.query_prefix,
        "document_prefix": embedder.document_prefix,
    }


def _index_verdict(root: Path | None, embedder: Any) -> str | None:
    """Whether the repository's index was embedded with this model (None: no index)."""
    if root is None:
        return None
    from hookgraph.embed.choice import store_mismatch
    from hookgraph.store import Store, StoreError, db_path

    path = db_path(root)
    if not path.exists():
        return "no index yet (run `hookgraph index`)"
    try:
        with Store(path, readonly=True) as store:
            if not store.has_vector_table():
                return "no vectors yet"
            problem = store_mismatch(store.get_meta, embedder)
    except StoreError as exc:
        return str(exc)
    return problem or "embedded with this model and recipe"


def register(cli: click.Group) -> None:
    """Add the ``model`` group to the ``hookgraph`` group."""

    @cli.group()
    def model() -> None:
        """Show the embedding model, switch to another GGUF, or convert a sentence-transformers folder."""

    @model.command("show")
    @click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
    @one_line_errors
    def model_show(as_json: bool) -> None:
        """The model in use: file, SHA-256, dimensions, pooling, window, prefixes."""
        from hookgraph import config
        from hookgraph.embed.choice import embedder_for_repo

        root = _root_or_none()
        embedder = embedder_for_repo(root)
        info = describe(embedder)
        configured = root is not None and bool(config.section(root, "model"))
        info["configured_in"] = str(config.config_path(root).relative_to(root)) if configured and root else None
        info["embed_url"] = config.get(root, "embed", "url") if root is not None else None
        info["index"] = _index_verdict(root, embedder)
        if as_json:
            click.echo(json.dumps(info, indent=2, ensure_ascii=False))
            return
        rows = [
            ("name", info["name"]),
            ("file", info["file"]),
            ("sha256", info["sha256"]),
            ("family", f"{info['family']} ({info['architecture']})"),
            ("dims", info["dims"]),
            ("pooling", info["pooling"]),
            ("context length", info["context_length"]),
            ("window", f"{info['window_tokens']} tokens, up to {info['max_windows']} windows per unit"),
            ("query prefix", repr(info["query_prefix"])),
            ("document prefix", repr(info["document_prefix"])),
            ("chosen by", info["configured_in"] or "default (shipped with hookgraph)"),
        ]
        if info["embed_url"]:
            rows.append(("embed url", info["embed_url"]))
        if info["index"]:
            rows.append(("index", info["index"]))
        for label, value in rows:
            click.echo(f"{label + ':':<17}{value}")

    @model.command("use")
    @click.argument("path")
    @click.option("--query-prefix", default=None, help="Override the family preset's query prefix.")
    @click.option("--document-prefix", default=None, help="Override the family preset's document prefix.")
    @click.option("--max-tokens", type=click.IntRange(8, 1_000_000), default=None,
                  help="Tokens per window (default: the family's, within the model's context).")
    @one_line_errors
    def model_use(path: str, query_prefix: str | None, document_prefix: str | None, max_tokens: int | None) -> None:
        """Embed this repository with PATH.gguf from now on ('default' for the shipped model).

        Records the choice in .hookgraph/config.toml. Overrides not given
        are cleared: they belonged to the previous model.
        """
        from hookgraph import config
        from hookgraph.embed import Embedder, EmbedderError, read_sha256_sidecar, write_sha256_sidecar
        from hookgraph.git import repo_root

        root = repo_root(Path.cwd())
        if path == "default":
            model_path = None
            embedder = Embedder(None, query_prefix=query_prefix, document_prefix=document_prefix, max_tokens=max_tokens)
        else:
            model_path = Path(path).expanduser()
            if not model_path.is_absolute():
                model_path = Path.cwd() / model_path
            embedder = Embedder(model_path, query_prefix=query_prefix, document_prefix=document_prefix,
                                max_tokens=max_tokens)
        embedder.dims  # reads the header: not a GGUF embedding model fails here
        note = ""
        if model_path is not None and read_sha256_sidecar(model_path) is None:
            try:
                write_sha256_sidecar(model_path)  # hooks then never hash a big model again
            except OSError:
                note = " (could not write its .sha256 sidecar: every run will hash the file)"
        info = describe(embedder)
        try:
            embedder.embed_query("hookgraph")  # loads it: a model llama.cpp cannot embed with fails here
        except EmbedderError:
            raise
        except Exception as exc:  # llama.cpp's own errors for a model it cannot run
            raise EmbedderError(f"{embedder.model_path}: cannot embed with this model ({exc})") from None
        finally:
            embedder.close()
        for key, value in (("path", None if model_path is None else _display_path(model_path, root)),
                           ("query_prefix", query_prefix), ("document_prefix", document_prefix),
                           ("max_tokens", max_tokens)):
            config.set_value(root, "model", key, value)
        click.echo(f"using {info['name']} ({info['file']}, sha256 {info['sha256'][:12]}, {info['dims']} dims, "
                   f"{info['family']} preset){note}")
        verdict = _index_verdict(root, embedder)
        if verdict and verdict.startswith("the index was embedded"):
            click.echo("the index holds another model's vectors: run `hookgraph index --reembed` to re-embed it")

    @model.command("convert")
    @click.argument("model_dir", type=click.Path(file_okay=False, path_type=Path))
    @click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
    @click.option("--type", "out_type", type=click.Choice(["f32", "f16", "q8_0"]), default="q8_0", show_default=True)
    @one_line_errors
    def model_convert(model_dir: Path, out: Path, out_type: str) -> None:
        """Convert a sentence-transformers BERT-family folder MODEL_DIR to a GGUF file OUT."""
        from hookgraph.models.convert import convert_command

        if not model_dir.is_dir():
            raise UserError(f"{model_dir} is not a folder: pass a sentence-transformers model folder")
        click.echo(convert_command(model_dir, out, out_type))
