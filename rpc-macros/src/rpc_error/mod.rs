//! `#[derive(RpcError)]`: an error enum whose variants travel as JSON-RPC
//! error objects, converted both ways. Read (`ast`), checked (`check`) and
//! rendered (`expand`) like `#[rpc]`, with every error collected.

mod ast;
mod check;
mod expand;

use proc_macro2::TokenStream;

use crate::ctxt::Ctxt;

pub fn derive(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<syn::DeriveInput>(input) {
        Ok(input) => input,
        Err(err) => return err.to_compile_error(),
    };
    let cx = Ctxt::default();
    let Some(error) = ast::ErrorEnum::from_syn(&cx, &input) else {
        return cx
            .check()
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default();
    };
    let skipped = check::check(&cx, &error);
    let errors = cx.check().err().map(|err| err.to_compile_error());
    // The conversions are still generated, with what could be read, so code
    // that uses them reports nothing beyond the errors above.
    let impls = expand::render(&error, &skipped);
    quote::quote!(#impls #errors)
}
