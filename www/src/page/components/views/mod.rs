//! The views of an explored file and what they are made of: the tree, the summary (targets,
//! diagnostics, container chain, limits explored with), the layout map, the hex view (with its
//! space picker and go-to box), the inspector, the kernels table, the code of a device image
//! (listing, legend, instruction mix, block outline, pressure strip, PTX by function), and what a tab shows before its file is
//! explored (progress, failure, cancellation).
//!
//! Imports: views use other views, the inspector uses the edit forms (`super::edit`) and the
//! target table and inspector the download buttons (`super::download`); nothing here uses the
//! app or the frame.

pub mod code_legend;
pub mod code_listing;
pub mod code_view;
pub mod compare_view;
pub mod container_chain;
pub mod decompress_prompt;
pub mod diagnostic_group;
pub mod diagnostics_list;
pub mod explored_with;
pub mod fit_view;
pub mod flow_outline;
pub mod generic_advisor;
pub mod goto_offset;
pub mod hex_view;
pub mod inspector;
pub mod instruction_mix;
pub mod kernel_hole;
pub mod kernel_holes;
pub mod kernels_view;
pub mod layout_map;
pub mod loading;
pub mod opened_once;
pub mod pressure_strip;
pub mod progress;
pub mod ptx_view;
pub mod runs_on_view;
pub mod space_picker;
pub mod summary;
pub mod target_sizes;
pub mod target_table;
pub mod tree_view;
pub mod virtual_rows;
